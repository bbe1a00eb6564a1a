#version 450 core
// Instanced open cylinder from a to b: the ends are hidden inside the atoms' spheres.
layout(location = 0) in vec3 unit;       // (cos, sin, t along the axis)
layout(location = 1) in vec4 start;      // world a, radius
layout(location = 2) in vec4 end;        // world b, unused
layout(location = 3) in vec4 color;

uniform mat4 view;
uniform mat4 projection;

out vec3 vNormal;
out vec3 vPosition;
out vec3 vColor;

void main() {
    vec3 axis = end.xyz - start.xyz;
    vec3 direction = normalize(axis);
    vec3 helper = abs(direction.x) < 0.9 ? vec3(1.0, 0.0, 0.0) : vec3(0.0, 1.0, 0.0);
    vec3 u = normalize(cross(helper, direction));
    vec3 v = cross(direction, u);
    vec3 normal = u * unit.x + v * unit.y;
    vec3 world = start.xyz + axis * unit.z + normal * start.w;
    vec4 position = view * vec4(world, 1.0);
    vNormal = mat3(view) * normal;
    vPosition = position.xyz;
    vColor = color.rgb;
    gl_Position = projection * position;
}
