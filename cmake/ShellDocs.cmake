# spillway_shell_docs(TARGET DOCS_TARGET): the program TARGET writes its bash and zsh
# completions and its man page from its own command tree (`TARGET
# __generate completion-bash|completion-zsh|man FILE`, client/cli/app_tree/)
# into build/share at build time; they are installed from there with the
# runtime component (the Debian package). DOCS_TARGET builds them.
include_guard(GLOBAL)
include(GNUInstallDirs)

function(spillway_shell_docs target docs_target)
  set(share ${PROJECT_BINARY_DIR}/share)
  set(bash ${share}/bash-completion/completions/${target})
  set(zsh ${share}/zsh/vendor-completions/_${target})
  set(man ${share}/man/man1/${target}.1)
  add_custom_command(
    OUTPUT ${bash} ${zsh} ${man}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${share}/bash-completion/completions
            ${share}/zsh/vendor-completions ${share}/man/man1
    COMMAND ${target} __generate completion-bash ${bash}
    COMMAND ${target} __generate completion-zsh ${zsh}
    COMMAND ${target} __generate man ${man}
    DEPENDS ${target}
    COMMENT "Generating ${target}'s bash and zsh completions and man page"
    VERBATIM)
  add_custom_target(${docs_target} ALL DEPENDS ${bash} ${zsh} ${man})
  install(FILES ${bash} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
          COMPONENT runtime)
  install(FILES ${zsh} DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions
          COMPONENT runtime)
  install(FILES ${man} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT runtime)
endfunction()
