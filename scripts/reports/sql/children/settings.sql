SELECT current_setting('server_version') AS server_version, current_setting('shared_buffers') AS shared_buffers,
       current_setting('max_wal_size') AS max_wal_size, current_setting('checkpoint_timeout') AS checkpoint_timeout,
       current_setting('fsync') AS fsync, current_setting('data_checksums') AS data_checksums,
       current_setting('full_page_writes') AS full_page_writes, current_setting('wal_compression') AS wal_compression;
