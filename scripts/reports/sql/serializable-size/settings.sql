-- The server's settings the failures depend on.
SELECT current_setting('server_version') AS server_version, current_setting('shared_buffers') AS shared_buffers,
       current_setting('max_pred_locks_per_transaction') AS max_pred_locks_per_transaction,
       current_setting('max_pred_locks_per_relation') AS max_pred_locks_per_relation,
       current_setting('max_pred_locks_per_page') AS max_pred_locks_per_page;
