-- Every kept table of this server dropped.
SELECT format('DROP TABLE %s', table_name) FROM keybench.runs WHERE table_name IS NOT NULL \gexec
