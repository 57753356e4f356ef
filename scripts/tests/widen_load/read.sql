-- An existing order read by its key, with its lines: the key is returned (its type changes at the
-- swap; -M extended parses each statement at each execution).
\set id random(:lo, :hi)
SELECT o.id, o.status, o.amount, count(l.order_id) FROM orders o LEFT JOIN order_lines l ON l.order_id = o.id WHERE o.id = :id GROUP BY o.id, o.status, o.amount;
