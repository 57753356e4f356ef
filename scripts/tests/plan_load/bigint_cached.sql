-- An order read as an ORM reads it, every column (SELECT *), by a client that caches its prepared
-- statements (run with -M prepared): the plan's new column changes what the statement returns.
\set id random(1, 50000)
SELECT * FROM orders WHERE id = :id;
