-- keybench_cliff's two figures for run :run at its default window.
SELECT rows_when_index_reads_started AS reads_started, rows_when_index_outgrew_shared_buffers AS outgrew FROM keybench_cliff(:run, :window);
