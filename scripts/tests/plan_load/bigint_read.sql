-- An existing order and its lines read by its key.
\set id random(1, 50000)
SELECT o.status, o.amount, count(l.order_id) FROM orders o LEFT JOIN order_lines l ON l.order_id = o.id WHERE o.id = :id GROUP BY o.status, o.amount;
