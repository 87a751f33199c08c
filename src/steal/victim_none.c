/* "none": no stealing, each rank runs its own tasks: the static baseline
 * that shows the imbalance the other policies remove. */
#include "steal_internal.h"

const bal__steal_policy bal__steal_policy_none = {.name = "none"};
