INSERT INTO curve_timing VALUES (:'phase', :seconds);
