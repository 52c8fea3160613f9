; Agent Hub's Windows installer (make package-windows; packaging/README.md).
; makensis -DVERSION=… -DEXE=agenthub.exe -DICON=agenthub.ico -DREADME=README.md
;          -DWEBVIEW2=MicrosoftEdgeWebview2Setup.exe [-DWEBVIEW2_STANDALONE]
;          -DOUTFILE=setup.exe agenthub.nsi
;
; A per-user install (no administrator rights): the app goes to
; %LOCALAPPDATA%\Programs\Agent Hub, a Start-menu entry and an uninstaller
; (listed in Settings → Apps) come with it; the data dir (%AppData%\agenthub)
; is the user's and stays on uninstall.
;
; WebView2: the window needs Microsoft's Edge WebView2 Runtime (part of
; Windows 11 and of current Windows 10). As Microsoft documents for
; installers, the Runtime is looked up first (the "pv" value of the
; EdgeUpdate client key, machine-wide or per-user); only when it is missing
; does the installer run the WebView2 installer it carries, silently: the
; Evergreen Bootstrapper (downloads the Runtime: needs the internet) or,
; built with WEBVIEW2_STANDALONE, the Evergreen Standalone Installer
; (offline). If the Runtime is still missing after that, the installer says
; so and how to get it; the install itself goes on (agenthub --headless
; serves the same UI to a browser without WebView2).

; A 64-bit installer (the app is 64-bit only; Debian's nsis ships the
; amd64 stubs and plugins), which also runs under wine64 for the test.
Target amd64-unicode
SetCompressor /SOLID lzma
RequestExecutionLevel user

!ifndef VERSION
  !define VERSION "0.0.0"
!endif
!ifndef VERSION4
  !define VERSION4 "0.0.0.0"
!endif
!define PRODUCT "Agent Hub"
!define UNINST_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\AgentHub"
; The WebView2 Runtime's EdgeUpdate client id (Microsoft's documented key).
!define WV2_CLIENT "{F3017226-FE2A-4295-8BDF-00C3A9A7E4C5}"

Name "${PRODUCT}"
OutFile "${OUTFILE}"
InstallDir "$LOCALAPPDATA\Programs\${PRODUCT}"
InstallDirRegKey HKCU "${UNINST_KEY}" "InstallLocation"
ShowInstDetails show
ManifestDPIAware true

VIProductVersion "${VERSION4}"
VIFileVersion "${VERSION4}"
VIAddVersionKey "ProductName" "${PRODUCT}"
VIAddVersionKey "FileDescription" "${PRODUCT} setup"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "LegalCopyright" "Agent Hub engineers"

!include "MUI2.nsh"
!include "LogicLib.nsh"
!include "x64.nsh"
!include "WinVer.nsh"

!define MUI_ICON "${ICON}"
!define MUI_UNICON "${ICON}"
!define MUI_ABORTWARNING
!define MUI_FINISHPAGE_RUN "$INSTDIR\agenthub.exe"
!define MUI_FINISHPAGE_RUN_TEXT "Start ${PRODUCT}"
!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

Function .onInit
  ${IfNot} ${RunningX64}
  ${OrIfNot} ${AtLeastWin10}
    MessageBox MB_OK|MB_ICONSTOP "${PRODUCT} needs 64-bit Windows 10 or later." /SD IDOK
    SetErrorLevel 1 ; a silent install fails visibly
    Abort
  ${EndIf}
  SetRegView 64
FunctionEnd

; $0 = the installed WebView2 Runtime's version, "" when there is none.
Function WebView2Version
  ReadRegStr $0 HKLM "SOFTWARE\WOW6432Node\Microsoft\EdgeUpdate\Clients\${WV2_CLIENT}" "pv"
  ${If} $0 == ""
  ${OrIf} $0 == "0.0.0.0"
    ReadRegStr $0 HKCU "Software\Microsoft\EdgeUpdate\Clients\${WV2_CLIENT}" "pv"
  ${EndIf}
  ${If} $0 == "0.0.0.0"
    StrCpy $0 ""
  ${EndIf}
FunctionEnd

Section "WebView2 Runtime"
  Call WebView2Version
  ${If} $0 != ""
    DetailPrint "WebView2 Runtime $0 is installed."
    Return
  ${EndIf}
  DetailPrint "Installing the Microsoft Edge WebView2 Runtime…"
  InitPluginsDir
  SetOutPath "$PLUGINSDIR"
  File "/oname=webview2setup.exe" "${WEBVIEW2}"
  ExecWait '"$PLUGINSDIR\webview2setup.exe" /silent /install' $1
  DetailPrint "The WebView2 installer ended with code $1."
  SetOutPath "$TEMP"
  Call WebView2Version
  ${If} $0 == ""
    MessageBox MB_OK|MB_ICONEXCLAMATION "The Microsoft Edge WebView2 Runtime, which the ${PRODUCT} window needs, could not be installed (the WebView2 installer ended with code $1; without an internet connection it cannot download the Runtime).$\r$\n$\r$\nInstall it later from Microsoft's WebView2 page (the Evergreen Standalone Installer works offline). Until then, 'agenthub --headless' serves the same interface to a browser." /SD IDOK
  ${EndIf}
SectionEnd

Section "${PRODUCT}" SecApp
  SectionIn RO
  SetOutPath "$INSTDIR"
  File "/oname=agenthub.exe" "${EXE}"
  File "/oname=agenthub.ico" "${ICON}"
  File "/oname=README.md" "${README}"
  WriteUninstaller "$INSTDIR\uninstall.exe"
  CreateShortcut "$SMPROGRAMS\${PRODUCT}.lnk" "$INSTDIR\agenthub.exe" "" "$INSTDIR\agenthub.ico" 0
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayName" "${PRODUCT}"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINST_KEY}" "Publisher" "Agent Hub engineers"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayIcon" "$INSTDIR\agenthub.ico"
  WriteRegStr HKCU "${UNINST_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINST_KEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKCU "${UNINST_KEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINST_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINST_KEY}" "NoRepair" 1
SectionEnd

Section "Uninstall"
  Delete "$SMPROGRAMS\${PRODUCT}.lnk"
  Delete "$INSTDIR\agenthub.exe"
  Delete "$INSTDIR\agenthub.ico"
  Delete "$INSTDIR\README.md"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"
  DeleteRegKey HKCU "${UNINST_KEY}"
  ; The data dir (%AppData%\agenthub: sessions, settings, keys) is the
  ; user's: it stays.
SectionEnd
