SELECT phase, seconds, round(seconds / 60.0, 1) AS minutes FROM curve_timing WHERE phase <> 'capped-peak-mb' ORDER BY phase;
