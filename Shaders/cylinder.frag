#version 450 core
#include "lighting.glsl"

flat in vec3 vStart;
flat in vec3 vEnd;
flat in float vRadius;
flat in vec3 vColorA;
flat in vec3 vColorB;
in vec3 vPosition;

out vec4 fragColor;

void main() {
    vec3 origin = orthographic ? vec3(vPosition.xy, 0.0) : vec3(0.0);
    vec3 direction = orthographic ? vec3(0.0, 0.0, -1.0) : normalize(vPosition);
    vec3 axis = vEnd - vStart;
    float len = length(axis);
    vec3 u = axis / len;
    // Ray against the infinite cylinder: the parts of ray and offset across the axis.
    vec3 w = origin - vStart;
    vec3 dp = direction - dot(direction, u) * u;
    vec3 wp = w - dot(w, u) * u;
    float A = dot(dp, dp);
    float B = dot(wp, dp);
    float C = dot(wp, wp) - vRadius * vRadius;
    float h = B * B - A * C;
    if (A < 1e-8 || h < 0.0) discard;
    float t = (-B - sqrt(h)) / A;
    vec3 hit = origin + t * direction;
    float s = dot(hit - vStart, u);
    // Open ends: the atoms' spheres cover them.
    if (s < 0.0 || s > len) discard;
    vec3 normal = (hit - vStart - s * u) / vRadius;
    gl_FragDepth = windowDepth(hit);
    fragColor = vec4(shade(s < 0.5 * len ? vColorA : vColorB, normal, hit), 1.0);
}
