//! The progress NOTICE's words.

/// A NOTICE line for progress: rows done, the rate since the last NOTICE (`last`: the elapsed
/// seconds and rows done then) and since the start, and the time to go at the recent rate, which
/// stays honest as a load slows down (an average since the start would promise too little).
pub fn progress_line(done: i64, total: i64, elapsed_s: f64, last: (f64, i64)) -> String {
    let average = if elapsed_s > 0.0 {
        done as f64 / elapsed_s
    } else {
        0.0
    };
    let span = elapsed_s - last.0;
    let recent = if span > 0.0 {
        (done - last.1) as f64 / span
    } else {
        average
    };
    let eta = if recent > 0.0 {
        duration_words((total - done) as f64 / recent)
    } else {
        "unknown".into()
    };
    format!(
        "keybench_run: {done} of {total} rows ({:.0}%), {recent:.0} rows/s now ({average:.0} on average), \
         about {eta} to go at the rate now",
        100.0 * done as f64 / total as f64
    )
}

/// Seconds as a person says them: 42 s, 3 min 05 s, 2 h 07 min.
pub fn duration_words(s: f64) -> String {
    let s = s.max(0.0).round() as i64;
    match s {
        0..=59 => format!("{s} s"),
        60..=3599 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, s % 3600 / 60),
    }
}
