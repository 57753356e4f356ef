CALL gaps_sample(:interval);
