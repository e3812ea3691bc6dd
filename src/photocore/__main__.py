from photocore.cli import main

main(prog_name="photocore")
