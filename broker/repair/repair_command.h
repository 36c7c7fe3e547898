// `spillway-broker repair --data-dir D --topic T --partition P`: offline
// repair of one corrupt partition (docs/operations.md, "Corrupt partitions
// and repair"). It takes the data directory's lock, so it refuses to run
// while a broker uses the directory.
#pragma once

namespace spillway::broker {

// Runs the subcommand; argv[1] is "repair". Prints what it removed on
// stdout and errors on stderr. Returns the exit status: 0 repaired (or
// nothing to repair), 1 failed (nothing or only part was changed; running
// it again finishes the job), 2 bad command line.
int run_repair_command(int argc, char** argv);

}  // namespace spillway::broker
