-- (Part of the install script: src/lib.rs includes sql/*.sql in order. Not an upgrade script.)

-- Least privilege: what starts background workers, creates tables, loads data or burns CPU is not
-- executable by PUBLIC (docs/OPERATIONS.md, Privileges, has the GRANTs that let a role use it). The generators,
-- decoders and read-only reports stay usable by every role.
DO $$
DECLARE
  f regprocedure;
BEGIN
  FOR f IN SELECT p.oid FROM pg_proc p
           JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
           JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'keybench'
           WHERE p.proname IN ('keybench_run', 'keybench_compare', 'keybench_probe', 'keybench_migrate',
                               'keybench_backfill', 'keybench_delete', 'keybench_reload',
                               'keybench_partition_lookup', 'keybench_generator_cost',
                               'keybench_reproduce', 'keybench_cleanup', 'keybench_import',
                               'keybench_read', 'keybench_replay', 'keybench_replay_logical',
                               'keybench_curve') LOOP
    EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', f);
  END LOOP;
END $$;
