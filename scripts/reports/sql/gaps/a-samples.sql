SELECT count(*) AS samples FROM gaps_waits;
