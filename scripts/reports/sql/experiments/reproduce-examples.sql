-- Shown, not run: keybench_reproduce's calls, as the document's examples.
SELECT * FROM keybench_reproduce('b', 0.1);                     -- a tenth of the study's rows per key
SELECT * FROM keybench_reproduce('a', 0.01, clients => 4, repeats => 3);
SELECT step, kind, metric, value FROM keybench_reproduce('d', 1) WHERE metric LIKE 'rows_when%';
