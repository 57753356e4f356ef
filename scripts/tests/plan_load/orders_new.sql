-- A new order: its key from the column's default, read back, then the order read by its key.
\set customer random(1, 1000)
\set amount random(1, 100000)
INSERT INTO orders (customer, amount) VALUES (:customer, :amount) RETURNING id \gset
SELECT status, amount FROM orders WHERE id = :id;
