echo "report: $(psql -c "SELECT count(*) FROM curve_phase")"
