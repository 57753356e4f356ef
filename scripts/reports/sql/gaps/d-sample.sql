CALL gaps_d_sample(:interval);
