-- keybench_plan's widening (src/inspect/plan.rs): the sequence behind the key column $2 of table
-- $1: the one the column owns (serial's OWNED BY, an identity's), else the one its default calls.
-- Its last value only where the caller may read it. Its columns are read by name.
WITH key AS (
  SELECT a.attnum FROM pg_attribute a WHERE a.attrelid = $1 AND a.attname = $2
), found AS (
  SELECT d.objid AS seq, true AS owned
  FROM pg_depend d, key
  WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass
    AND d.refobjid = $1 AND d.refobjsubid = key.attnum AND d.deptype IN ('a', 'i')
  UNION ALL
  SELECT d.refobjid, false
  FROM pg_attrdef ad
  JOIN key ON ad.adnum = key.attnum
  JOIN pg_depend d ON d.classid = 'pg_attrdef'::regclass AND d.objid = ad.oid
                  AND d.refclassid = 'pg_class'::regclass
  WHERE ad.adrelid = $1
)
SELECT format('%I.%I', n.nspname, c.relname) AS name, f.owned,
       s.seqmin AS min, s.seqmax AS max, s.seqincrement AS increment,
       CASE WHEN has_sequence_privilege(s.seqrelid, 'SELECT') OR has_sequence_privilege(s.seqrelid, 'USAGE')
            THEN pg_sequence_last_value(s.seqrelid) END AS last_value
FROM found f
JOIN pg_sequence s ON s.seqrelid = f.seq
JOIN pg_class c ON c.oid = s.seqrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
ORDER BY f.owned DESC
LIMIT 1
