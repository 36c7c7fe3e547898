// The prose of the `spillway` man page (NAME, DESCRIPTION, EXIT STATUS, SEE
// ALSO); the rest is generated from the command tree (app_tree/man_page.h).
#pragma once

#include "app_tree/man_page.h"

namespace spillway::cli {

ManPageText spillway_man_page_text();

}  // namespace spillway::cli
