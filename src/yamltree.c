#include "yamltree.h"
/* placeholder: being written */
bool yamltree_parse(struct run *run, struct source *src, struct node **out) { (void)run; (void)src; *out = 0; return false; }
