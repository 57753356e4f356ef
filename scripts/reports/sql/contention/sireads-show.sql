SELECT kind, n AS keys_looked_up, leaf_page_locks, relation_locks FROM sireads ORDER BY ord, n;
