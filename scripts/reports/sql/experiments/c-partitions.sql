SELECT layout, mode, lookups, found, round(lookups_per_sec) AS lookups_per_s, index_scans_per_lookup AS index_scans, buffers_per_lookup AS buffers
FROM keybench_partition_lookup(:rows, :partitions, :lookups, :days);
