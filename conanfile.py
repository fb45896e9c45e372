# Conan 2 recipe for etad, following ConanCenter's conventions for header-only libraries.
#   conan create .                                  # Boost from a remote (ConanCenter)
#   conan create . -pr:a conan/profiles/debian -nr  # Debian's Boost, no remote (offline)
# See docs/consuming.md. tools/conan-check.sh runs the second when Conan is installed.
import os
import re

from conan import ConanFile
from conan.errors import ConanException, ConanInvalidConfiguration
from conan.tools.build import check_min_cppstd
from conan.tools.files import copy, load
from conan.tools.layout import basic_layout
from conan.tools.scm import Version

required_conan_version = ">=2.0"


def cmake_project_version(cmakelists):
    """The VERSION of the `project(etad VERSION x.y.z ...)` call in the text of CMakeLists.txt."""
    match = re.search(r"^[ \t]*project\s*\(\s*etad\s[^)]*?\bVERSION\s+(\d+(?:\.\d+){0,3})(?=[\s)])",
                      cmakelists, re.MULTILINE | re.IGNORECASE)
    if not match:
        raise ConanException("etad: no `project(etad VERSION <version> ...)` in CMakeLists.txt")
    return match.group(1)


class EtadConan(ConanFile):
    name = "etad"
    description = "Header-only C++20 automatic differentiation in which expressions are types"
    license = "MIT"
    topics = ("automatic-differentiation", "autodiff", "gradient", "expression-templates",
              "header-only")
    package_type = "header-library"
    settings = "os", "arch", "compiler", "build_type"
    exports_sources = "include/*", "LICENSE"
    no_copy_source = True

    @property
    def _min_cppstd(self):
        return 20

    @property
    def _compilers_minimum_version(self):
        # The oldest compilers etad's tests run with (tools/test.sh).
        return {"gcc": "12", "clang": "14"}

    def set_version(self):
        # `--version` on the command line wins; otherwise CMakeLists.txt is the one source of
        # the version (set_version() runs at export, in the recipe's folder).
        if not self.version:
            cmakelists = load(self, os.path.join(self.recipe_folder, "CMakeLists.txt"))
            self.version = cmake_project_version(cmakelists)

    def layout(self):
        basic_layout(self, src_folder=".")

    def requirements(self):
        # etad's headers include Boost.MP11, and so do its users' translation units
        # (transitive_headers). Only Boost's headers: nothing of Boost is linked (libs=False).
        self.requires("boost/[>=1.74 <2]", transitive_headers=True, libs=False)

    def package_id(self):
        self.info.clear()

    def validate(self):
        check_min_cppstd(self, self._min_cppstd)
        minimum_version = self._compilers_minimum_version.get(str(self.settings.compiler), False)
        if minimum_version and Version(self.settings.compiler.version) < minimum_version:
            raise ConanInvalidConfiguration(
                f"{self.ref} requires C++{self._min_cppstd}, which your compiler does not support.")

    def source(self):
        pass  # the sources are exported with the recipe (exports_sources)

    def build(self):
        pass  # header-only

    def package(self):
        copy(self, "LICENSE", self.source_folder, os.path.join(self.package_folder, "licenses"))
        copy(self, "*", os.path.join(self.source_folder, "include"),
             os.path.join(self.package_folder, "include"))

    def package_info(self):
        # The same file and target names as etad's own CMake package (share/cmake/etad).
        self.cpp_info.set_property("cmake_file_name", "etad")
        self.cpp_info.set_property("cmake_target_name", "etad::etad")
        self.cpp_info.set_property("pkg_config_name", "etad")
        self.cpp_info.bindirs = []
        self.cpp_info.libdirs = []
        # No cpp_info.requires = ["boost::headers"]: with the Debian profile Boost is a
        # [platform_requires] and has no components to name; etad then depends on all of Boost,
        # which (libs=False) means Boost's include directories only.
