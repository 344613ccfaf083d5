/* placeholder: being written */
#include "check.h"
int main(void) { return check_done("test_yamltree"); }
