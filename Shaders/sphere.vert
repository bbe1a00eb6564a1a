#version 450 core
// Ray-cast sphere impostor: one camera-facing quad per atom, placed at the sphere's front so
// that it covers the sphere's silhouette in both projections.
layout(location = 0) in vec2 corner;     // (-1,-1) .. (1,1)
layout(location = 1) in vec4 sphere;     // world center, radius
layout(location = 2) in vec4 color;

uniform mat4 view;
uniform mat4 projection;
uniform float minimumRadius; // view units: no atom drawn smaller than a few pixels

flat out vec3 vCenter;
flat out float vRadius;
flat out vec3 vColor;
out vec3 vPosition;

void main() {
    vec3 center = (view * vec4(sphere.xyz, 1.0)).xyz;
    float radius = max(sphere.w, minimumRadius);
    vec3 position = center + vec3(corner * radius, radius);
    vCenter = center;
    vRadius = radius;
    vColor = color.rgb;
    vPosition = position;
    gl_Position = projection * vec4(position, 1.0);
}
