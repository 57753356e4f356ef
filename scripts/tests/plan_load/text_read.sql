-- A customer's latest order and its items, read by its key.
\set customer random(1, 1000)
SELECT id AS latest FROM orders WHERE customer = :customer ORDER BY created_at DESC LIMIT 1 \gset
SELECT o.status, o.amount, count(i.order_id) FROM orders o LEFT JOIN order_items i ON i.order_id = o.id WHERE o.id = :latest GROUP BY o.status, o.amount;
