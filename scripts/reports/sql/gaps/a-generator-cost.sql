SELECT generator, provider, ns_per_call, net_ns_per_call, net_vs_nextval
FROM keybench_generator_cost(:calls, :rounds) WHERE generator IN ('count(1) floor', 'nextval()', 'uuidv7()');
