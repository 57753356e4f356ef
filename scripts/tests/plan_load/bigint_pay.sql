-- An existing order paid, by its key (the rows loaded before the clients start are 1 to 50000).
\set id random(1, 50000)
UPDATE orders SET status = 'paid' WHERE id = :id;
