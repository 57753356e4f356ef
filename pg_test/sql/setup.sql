-- Shared by the tests that follow: regress.err(statement) runs a statement and returns the error
-- it raised (SQLSTATE, message, detail, hint), or 'no error'.
CREATE SCHEMA regress;
CREATE FUNCTION regress.err(q text, OUT state text, OUT message text, OUT detail text, OUT hint text)
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  state := 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT,
                          detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
END $$;
