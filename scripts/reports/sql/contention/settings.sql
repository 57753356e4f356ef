SELECT current_setting('server_version') AS server_version, current_setting('shared_buffers') AS shared_buffers,
       current_setting('max_wal_size') AS max_wal_size, current_setting('fsync') AS fsync,
       current_setting('synchronous_commit') AS synchronous_commit, current_setting('wal_compression') AS wal_compression,
       current_setting('max_pred_locks_per_transaction') AS max_pred_locks_per_transaction,
       current_setting('max_pred_locks_per_relation') AS max_pred_locks_per_relation,
       current_setting('max_pred_locks_per_page') AS max_pred_locks_per_page;
