-- An existing order paid (an UPDATE by key: the sync trigger runs on it too).
\set id random(:lo, :hi)
UPDATE orders SET status = 'paid' WHERE id = :id;
