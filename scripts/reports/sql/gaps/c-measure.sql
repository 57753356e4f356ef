INSERT INTO pl SELECT :n, 'auto', p.* FROM keybench_partition_lookup(:rows, :n, :lookups, :days) p;
