SELECT format('DROP TABLE %s', table_name) FROM keybench.runs WHERE run_id = :run \gexec
UPDATE keybench.runs SET table_name = NULL WHERE run_id = :run;
