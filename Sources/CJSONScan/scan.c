// The scanning functions are static inline in include/sy_json_scan.h; this file makes the target buildable.
#include "sy_json_scan.h"
