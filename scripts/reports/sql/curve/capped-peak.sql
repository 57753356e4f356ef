SELECT max(seconds) AS peak_mb FROM curve_timing WHERE phase = 'capped-peak-mb';
