-- A customer's latest order shipped: found by customer, updated by its key.
\set customer random(1, 1000)
SELECT id AS latest FROM orders WHERE customer = :customer ORDER BY created_at DESC LIMIT 1 \gset
UPDATE orders SET status = 'shipped' WHERE id = :latest;
