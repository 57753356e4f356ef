-- A customer's latest order shipped and the event recorded, one transaction.
\set customer random(1, 1000)
SELECT id AS latest FROM orders WHERE customer = :customer ORDER BY created_at DESC LIMIT 1 \gset
BEGIN;
UPDATE orders SET status = 'shipped' WHERE id = :latest;
INSERT INTO order_events (order_id, kind) VALUES (:latest, 'shipped');
COMMIT;
