-- The coordinator's versions and the settings the report names.
SELECT current_setting('server_version') AS server_version, current_setting('data_checksums') AS data_checksums,
       current_setting('fsync') AS fsync, (SELECT extversion FROM pg_extension WHERE extname = 'citus') AS citus_version,
       split_part(citus_version(), ' ', 2) AS citus_release;
