-- The server's version and the settings the document names at its top.
SELECT current_setting('server_version') || ', shared_buffers ' || current_setting('shared_buffers') || ', max_wal_size ' || current_setting('max_wal_size')
       || ', checkpoint_timeout ' || current_setting('checkpoint_timeout') || ', data_checksums ' || current_setting('data_checksums') AS settings;
