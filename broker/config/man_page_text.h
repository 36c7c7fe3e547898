// The prose of the spillway-broker man page (NAME, DESCRIPTION, EXIT STATUS,
// SEE ALSO). Its OPTIONS come from the command line itself (command_line.h)
// when `spillway-broker __generate man` runs (client/cli/app_tree/).
#pragma once

#include "app_tree/man_page.h"

namespace spillway::broker {

cli::ManPageText broker_man_page_text();

}  // namespace spillway::broker
