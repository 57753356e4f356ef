-- (Part of the install script: src/lib.rs includes sql/*.sql in order. Not an upgrade script.)

-- keybench_generator_cost() measures nextval() on a regular (WAL-logged) sequence, as an identity
-- column uses.
CREATE SEQUENCE keybench_cost_seq;
GRANT USAGE, UPDATE ON SEQUENCE keybench_cost_seq TO PUBLIC;
