-- A customer's last orders.
\set customer random(1, 1000)
SELECT id, status, amount, created_at FROM orders WHERE customer = :customer ORDER BY created_at DESC LIMIT 10;
