-- The server's version and the settings a part's figures depend on.
SELECT 'PostgreSQL ' || current_setting('server_version') || ', shared_buffers ' || current_setting('shared_buffers')
    || ', max_wal_size ' || current_setting('max_wal_size') || ', checkpoint_timeout ' || current_setting('checkpoint_timeout')
    || ', synchronous_commit ' || current_setting('synchronous_commit') || ', data_checksums ' || current_setting('data_checksums') AS settings;
