// Blinn-Phong with a key light, a fill light from the camera and an ambient term, in view space;
// optional depth cueing.
#include "view.glsl"
uniform vec3 lightDirection;   // toward the light, normalized
uniform vec3 halfwayDirection; // between the light and the eye, for orthographic views
uniform float ambient;
uniform float fill;            // diffuse light from the camera: faces turned from the key light keep their shape
uniform float diffuse;
uniform float specular;
uniform float fogStart;        // view-space depths where depth cueing begins and is strongest
uniform float fogEnd;
uniform float fogStrength;     // 0 turns depth cueing off
uniform vec3 fogColor;

// `normal` must be of unit length (the impostors compute it exactly).
vec3 shade(vec3 base, vec3 n, vec3 position) {
    float lambert = max(dot(n, lightDirection), 0.0);
    // Orthographic: the eye direction is the same everywhere, so the halfway vector is a uniform.
    vec3 halfway = orthographic ? halfwayDirection : normalize(lightDirection + normalize(-position));
    // shininess 48 by repeated squaring: x^32 * x^16, far cheaper than pow() in llvmpipe.
    float x = max(dot(n, halfway), 0.0);
    float x2 = x * x, x4 = x2 * x2, x8 = x4 * x4, x16 = x8 * x8;
    float highlight = lambert > 0.0 ? x16 * x16 * x16 : 0.0;
    // The fill light shines along the view: n.z in view space, orthographic or not, to within a
    // few degrees at the edge of a perspective picture.
    vec3 color = base * (ambient + diffuse * lambert + fill * max(n.z, 0.0)) + vec3(specular * highlight);
    if (fogStrength > 0.0) {
        float f = clamp((-position.z - fogStart) / max(fogEnd - fogStart, 1e-4), 0.0, 1.0);
        color = mix(color, fogColor, f * fogStrength);
    }
    return clamp(color, 0.0, 1.0);
}

// Window depth of a view-space point, as the fixed pipeline would write it: only the third and
// fourth rows of the projection matter.
uniform mat4 projection;
float windowDepth(vec3 position) {
    float z = projection[2][2] * position.z + projection[3][2];
    if (orthographic) return z * 0.5 + 0.5;
    float w = projection[2][3] * position.z + projection[3][3];
    return z / w * 0.5 + 0.5;
}
