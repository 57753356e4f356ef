-- The payload width at which bigint's WAL is :target bytes, by linear interpolation between the two
-- measured widths of shape d that bracket it (NULL when none do).
SELECT round((SELECT w0.width + (:target - r0.lsn_delta) * (w1.width - w0.width)::numeric / (r1.lsn_delta - r0.lsn_delta)
    FROM w w0 JOIN keybench.runs r0 ON r0.run_id = w0.run_id JOIN w w1 ON w1.shape = w0.shape AND w1.width > w0.width JOIN keybench.runs r1 ON r1.run_id = w1.run_id
    WHERE w0.shape = 'd' AND r0.lsn_delta <= :target AND r1.lsn_delta > :target ORDER BY w1.width - w0.width LIMIT 1)) AS width;
