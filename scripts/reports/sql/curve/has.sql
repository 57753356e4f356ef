SELECT count(*) AS runs FROM curve_phase WHERE phase = :'phase';
