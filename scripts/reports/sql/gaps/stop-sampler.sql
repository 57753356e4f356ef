UPDATE gaps_ctl SET stop = true;
