// The projection is chosen when the program is built: each variant has the branch it needs and
// no other (a uniform would leave the test in every fragment).
#ifdef ORTHOGRAPHIC
const bool orthographic = true;
#else
const bool orthographic = false;
#endif
