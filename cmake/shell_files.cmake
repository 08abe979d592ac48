# Made from the built binaries, so they list exactly the commands and options invar has: the bash
# and zsh completion scripts (`invar completion bash|zsh`, from the command registry) and the man
# page (help2man on `invar --help` and `invar --version`). `cmake --install` puts them where
# bash-completion, zsh and man look under the prefix.
# help2man is a Debian package that scripts/install-deps.sh installs: without it the build could not
# make the man page it installs, so its absence stops the configuration rather than dropping the page.
find_program(HELP2MAN_EXECUTABLE help2man REQUIRED)
set(INVAR_BASH_COMPLETION_DIR ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
  CACHE STRING "Where bash-completion looks for invar's script, relative to the prefix")
set(INVAR_ZSH_COMPLETION_DIR ${CMAKE_INSTALL_DATADIR}/zsh/site-functions
  CACHE STRING "Where zsh's $fpath looks for _invar, relative to the prefix")

set(INVAR_SHELL_FILES_DIR ${CMAKE_BINARY_DIR}/share)
set(INVAR_MAN_PAGE ${INVAR_SHELL_FILES_DIR}/man/man1/invar.1)
add_custom_command(
  OUTPUT ${INVAR_SHELL_FILES_DIR}/bash-completion/invar ${INVAR_SHELL_FILES_DIR}/zsh/_invar
  COMMAND ${CMAKE_COMMAND} -E make_directory ${INVAR_SHELL_FILES_DIR}/bash-completion ${INVAR_SHELL_FILES_DIR}/zsh
  COMMAND $<TARGET_FILE:invar_full> completion bash -o ${INVAR_SHELL_FILES_DIR}/bash-completion/invar
  COMMAND $<TARGET_FILE:invar_full> completion zsh -o ${INVAR_SHELL_FILES_DIR}/zsh/_invar
  DEPENDS invar_full
  COMMENT "Writing the bash and zsh completion scripts"
  VERBATIM)
# The front `invar` prints the version and hands --help to invar-full, whose help lists every command.
add_custom_command(
  OUTPUT ${INVAR_MAN_PAGE}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${INVAR_SHELL_FILES_DIR}/man/man1
  COMMAND ${HELP2MAN_EXECUTABLE} --no-info --section 1
    --name "offline evaluation of text transformations and of the transformer models behind them"
    --include ${CMAKE_SOURCE_DIR}/cmake/invar.h2m
    --output ${INVAR_MAN_PAGE} $<TARGET_FILE:invar_cli>
  DEPENDS invar_cli invar_full ${CMAKE_SOURCE_DIR}/cmake/invar.h2m
  COMMENT "Writing the man page invar.1 with help2man"
  VERBATIM)
add_custom_target(invar_shell_files ALL
  DEPENDS ${INVAR_SHELL_FILES_DIR}/bash-completion/invar ${INVAR_SHELL_FILES_DIR}/zsh/_invar ${INVAR_MAN_PAGE})

install(FILES ${INVAR_SHELL_FILES_DIR}/bash-completion/invar DESTINATION ${INVAR_BASH_COMPLETION_DIR})
# bash-completion loads a script by the command's name: invar-full gets the same one.
install(FILES ${INVAR_SHELL_FILES_DIR}/bash-completion/invar DESTINATION ${INVAR_BASH_COMPLETION_DIR}
  RENAME invar-full)
install(FILES ${INVAR_SHELL_FILES_DIR}/zsh/_invar DESTINATION ${INVAR_ZSH_COMPLETION_DIR})
install(FILES ${INVAR_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
