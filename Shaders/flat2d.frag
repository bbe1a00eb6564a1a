#version 450 core
// Flat color, or color times a coverage texture (a glyph atlas) with COVERAGE defined.
in vec4 vColor;
in vec2 vTexcoord;
#ifdef COVERAGE
uniform sampler2D coverage;
#endif

out vec4 fragColor;

void main() {
#ifdef COVERAGE
    fragColor = vec4(vColor.rgb, vColor.a * texture(coverage, vTexcoord).r);
#else
    fragColor = vColor;
#endif
}
