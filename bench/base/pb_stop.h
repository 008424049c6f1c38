/* pb_stop.h — a harness asked to stop by a signal: SIGINT, SIGTERM and SIGHUP end the measuring loop at the
 * next point boundary instead of the process, so the rows measured so far are published (marked incomplete);
 * a repeat within a second is the same request (`timeout -s INT` sends two), a later one kills as before (the
 * partial CSV files keep every finished row). SIGPIPE is ignored: a
 * closed stdout (`| head -1`) ends the printing, never the measuring (writes then fail with EPIPE).
 *
 *   pb_stop_install();                       // once, before measuring
 *   for (each point) { if (pb_stop_signal()) break; measure; write the row; }
 *   if (pb_stop_signal()) exit status 128 + pb_stop_signal()
 */
#ifndef PB_STOP_H
#define PB_STOP_H

/* Installs the handlers (a stop signal a second or more after the first takes the default action) and ignores
 * SIGPIPE.
 * Children started later get SIGPIPE's default back through pb_stop_child_defaults. */
void pb_stop_install(void);
/* The signal that asked to stop, 0 while none has. */
int pb_stop_signal(void);
/* The short name of a signal ("SIGTERM"), "signal N" for others. */
const char *pb_stop_name(int sig);
/* In a forked child before exec (async-signal-safe): the default dispositions of the signals above. */
void pb_stop_child_defaults(void);

#endif
