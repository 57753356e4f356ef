-- Everything keybench puts in a database, in a form that two databases can be diffed by: the
-- extension's members, functions (signature, result, volatility, strictness, parallel safety,
-- settings, privileges, body), tables and types with their columns in order, constraints, views,
-- comments, the schema's and tables' privileges, and which tables pg_dump treats as data.
-- Used by scripts/tests/lifecycle-test.sh to check that 0.1.0 updated to this version equals a fresh
-- install of it.
\pset format unaligned
\pset tuples_only on
SELECT 'version ' || extversion FROM pg_extension WHERE extname = 'keybench';
SELECT 'member ' || pg_describe_object(classid, objid, objsubid)
FROM pg_depend WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
  AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'keybench')
ORDER BY 1;
SELECT format('function %s returns %s | %s | volatile %s strict %s parallel %s secdef %s | config %s | acl %s | body %s',
              p.oid::regprocedure, pg_get_function_result(p.oid), pg_get_function_arguments(p.oid),
              p.provolatile, p.proisstrict, p.proparallel, p.prosecdef, p.proconfig, coalesce(p.proacl::text, 'default'),
              md5(p.prosrc))
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'keybench')
ORDER BY 1;
SELECT format('column %s.%s %s %s | not null %s | default %s | identity %s', c.oid::regclass, a.attnum, a.attname,
              format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(ad.adbin, ad.adrelid), a.attidentity)
FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
LEFT JOIN pg_attrdef ad ON ad.adrelid = c.oid AND ad.adnum = a.attnum
WHERE c.relnamespace = 'keybench'::regnamespace AND c.relkind IN ('r', 'v', 'c') AND c.relname !~ '^run_\d'
ORDER BY c.oid::regclass::text, a.attnum;
SELECT format('constraint %s %s: %s', conrelid::regclass, conname, pg_get_constraintdef(oid))
FROM pg_constraint WHERE connamespace = 'keybench'::regnamespace AND conrelid::regclass::text !~ '^keybench\.run_\d' ORDER BY 1;
SELECT format('index %s', pg_get_indexdef(indexrelid)) FROM pg_index
WHERE indrelid IN (SELECT oid FROM pg_class WHERE relnamespace = 'keybench'::regnamespace AND relname IN ('runs', 'batches', 'deletions'))
ORDER BY 1;
SELECT format('view %s: %s', c.oid::regclass, pg_get_viewdef(c.oid))
FROM pg_class c WHERE c.relnamespace = 'keybench'::regnamespace AND c.relkind = 'v' ORDER BY 1;
SELECT format('acl %s %s', c.oid::regclass, c.relacl) FROM pg_class c
WHERE c.relnamespace = 'keybench'::regnamespace AND c.relkind IN ('r', 'v', 'S') AND c.relname !~ '^run_\d' ORDER BY 1;
SELECT format('schema acl %s', nspacl) FROM pg_namespace WHERE nspname = 'keybench';
SELECT format('comment %s: %s', pg_describe_object(classid, objoid, objsubid), description)
FROM pg_description WHERE classoid = 'pg_class'::regclass AND objoid IN (SELECT oid FROM pg_class WHERE relnamespace = 'keybench'::regnamespace)
   OR classoid = 'pg_namespace'::regclass AND objoid = 'keybench'::regnamespace
ORDER BY 1;
SELECT 'dumped as data ' || unnest(extconfig)::regclass FROM pg_extension WHERE extname = 'keybench' ORDER BY 1;
