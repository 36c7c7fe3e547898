// The spillway-broker man page's prose (man_page_text.h).
#include "config/man_page_text.h"

namespace spillway::broker {

cli::ManPageText broker_man_page_text() {
  cli::ManPageText text;
  text.summary = "the Spillway message broker";
  text.source = "spillway-broker " SPILLWAY_VERSION;
  text.description = {
      "spillway-broker serves topics over Spillway's native protocol (default 127.0.0.1:9093) and "
      "the Kafka wire protocol (default 127.0.0.1:9092), storing each partition as a directory of "
      "segment files under its data directory. It runs until SIGINT or SIGTERM, then answers the "
      "requests it has already read and exits.",
      "Settings come from the defaults, then the TOML file given with --config (every key is "
      "described in the shipped broker.toml), then the flags below, the last occurrence of a "
      "flag winning. A bad value in any of them stops the broker before it listens.",
  };
  text.exit_statuses = {
      {"0", "Stopped cleanly after SIGINT or SIGTERM (also --help and --version)."},
      {"1",
       "Start-up failed: the address is in use, the data directory cannot be locked or "
       "read. For repair: the partition could not be repaired."},
      {"2", "A bad command line or config (nothing was started)."},
  };
  text.see_also = {"spillway(1)"};
  return text;
}

}  // namespace spillway::broker
